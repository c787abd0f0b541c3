"""Impose: faces placed on sheets. The grid with shared bleed, crop marks and duplex backs
(grid.py), packing of shaped pieces (packing.py), the die line (dieline.py), drawing a face
on a sheet (faces.py), the sheet writers (sheets.py, packed_sheets.py) and the build-manifest
entries they report (entries.py).
"""
