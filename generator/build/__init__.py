"""Build: turning a checked game into files. The plan of targets and their run in parallel
(run.py), the digest of what each target reads (keys.py), the stamp of a whole kit's last
build (stamp.py), the lint every written PDF passes before it is kept (pdflint.py), and the
print-and-assembly guide made from the build plan (guide.py).
"""
