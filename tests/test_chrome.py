"""ui/chrome.py: what the server does once per process."""

import subprocess
import sys


def test_once_per_process_the_objects_alive_leave_the_collectors_sight():
    """After per_process(), the objects alive (the imported libraries) are frozen: a full
    collection no longer walks them, and garbage made later is still collected."""
    code = """
import gc
from ui.chrome import per_process
per_process()
frozen = gc.get_freeze_count()
a = []; a.append(a); del a  # a cycle made afterwards
print(frozen, gc.collect())
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    frozen, found = out.split()
    assert int(frozen) > 100_000 and int(found) >= 1
