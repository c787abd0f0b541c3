"""Render: one face (a card, a board, a token) drawn from its layout. The layout engine
(engine.py) walks the box kinds in boxes/, each a plug-in that draws and checks itself; text
layout with wrap, shrink and icons (textflow.py), fonts (fonts.py), art files (art.py), Form
XObjects with their own resources (pdfform.py) and where a face's text sits (textspots.py).
"""
