"""Translators' workflow: segments, change tracking, PO export and import."""
