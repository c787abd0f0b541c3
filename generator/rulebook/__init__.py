"""Rulebook: content/<game>/rules/<lang>.md (Markdown + Jinja) to HTML to PDF with WeasyPrint
(book.py), the game data its Jinja blocks can use (data.py), the designer's Markdown as safe
HTML (markup.py) and faces as pictures for its figures (figures.py).
"""
