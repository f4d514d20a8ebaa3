"""Packaging a records-only build loads only what it uses."""

import subprocess
import sys


def test_computed_summaries_of_a_records_build_do_not_load_sympy(tmp_path):
    # The solution package imports sympy (about half a second): a build without computed
    # problems has no computed-*.json, so packaging it must not pay for that import.
    code = (
        "import sys; from pathlib import Path\n"
        "from benchsmith.package.writer import computed_summaries\n"
        f"assert computed_summaries(Path({str(tmp_path)!r})) == []\n"
        "print('sympy' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
