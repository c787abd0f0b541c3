"""Commands: what a person types. Parsing the command line and dispatching it (`cli.py`), and
the commands that are more than a call into a stage: `pnp watch` (watch.py), `pnp preview`
(preview.py), `pnp new` (starter.py), `pnp calibrate` (calibrate.py), `pnp render` of one face
(face.py), `pnp i18n` (i18n.py) and the generated reference (reference.py). Nothing below this
folder imports it.
"""
