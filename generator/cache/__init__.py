"""Cache: what pnp keeps in the user's cache folder between commands: parsed fonts
(font_cache.py) and compiled Jinja templates (template_cache.py).
"""
