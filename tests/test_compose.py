import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_it_ships_a_compose_file_that_validates():
    binary = shutil.which("docker-compose")
    assert binary, "docker-compose is installed by scripts/system-deps.sh"
    result = subprocess.run(
        [binary, "-f", "compose.yaml", "config", "-q"],
        cwd=ROOT,
        env={**os.environ, "SECRET_KEY": "x"},
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    services = subprocess.run(
        [binary, "-f", "compose.yaml", "config", "--services"],
        cwd=ROOT,
        env={**os.environ, "SECRET_KEY": "x"},
        capture_output=True,
        text=True,
    ).stdout.split()
    assert {"postgres", "falkordb", "web", "worker", "beat"} <= set(services)
