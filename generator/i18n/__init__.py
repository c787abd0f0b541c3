"""Translators' workflow: every translatable string as a segment (segments.py), its review
state (tracking.py), draft languages (drafts.py) and the PO round trip (po.py). The `pnp i18n`
command itself is commands/i18n.py.
"""
