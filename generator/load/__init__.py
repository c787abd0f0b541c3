"""Load: from a project's files to the typed content model. Where things live (project.py),
safe YAML with line numbers (yamlload.py), the model itself (model.py, on strict.py), each
export format's own options (export_options.py), validation (validation.py), games
(content.py), layouts (layouts.py), paper and face sizes (sizes.py), die-cut shapes
(shapes.py), languages as data (languages.py), glossaries, rulebook sources and notes, the
sandboxed Jinja every text goes through (templating.py), and the content model kept between
commands (model_cache.py).
"""
