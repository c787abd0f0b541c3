"""Impose: faces placed on sheets. The grid with shared bleed, crop marks and duplex backs
(grid.py), packing of shaped pieces (packing.py), the die line (dieline.py), drawing a face
on a sheet (faces.py), the one sheet writer (writer.py) fed by placement plans (placement.py:
grids and tiles in sheets.py, packed pieces in packed_sheets.py), and the build-manifest
entries it reports (entries.py).
"""
