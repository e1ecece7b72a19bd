"""Rule 169's checks: every saved lossy path (rule 167's paths 1-4, rule 168's 5-7, this rule's 8-11) predicted by
the tcpsim on ``sys.path`` on an ideal host and on ``lab_vm``, against the kernel's median pass:
``python score.py``. Prints one line a path and host, and the median |error| over paths 8-10 for each host."""

import json
import statistics
from pathlib import Path

from tcpsim.lab.predict import predict_lab, tool_goodput_bps
from tcpsim.lab.scenario import LabScenario

HERE = Path(__file__).parent
FILES = sorted((HERE.parent / "rule167_2026-12-03").glob("path*.json")) + \
    sorted((HERE.parent / "rule168_2026-12-03").glob("path?.json")) + sorted(HERE.glob("path*.json"))
HOSTS = {"ideal": None, "lab_vm": "lab_vm"}


def error(f: Path, platform) -> tuple[float, float, float]:
    """The prediction's error on the saved run ``f`` with ``platform``, its goodput and its ACKs a second."""
    d = json.loads(f.read_text())
    m, sc = d["measured"], LabScenario(**d["scenario"])
    p = predict_lab(sc, d["sysctls"], platform=platform, os_name=d["predicted"]["os"] if platform is None else None,
                    delay_line=d["delay_line"], tool=m["tool"], tool_version=m.get("tool_version") or "")
    goodput = tool_goodput_bps(sc, p, m["duration_s"])
    return goodput / m["goodput_bps"] - 1, goodput, p.ack_packets_per_s


def main() -> None:
    errors: dict[str, dict[str, float]] = {h: {} for h in HOSTS}
    for f in sorted(FILES, key=lambda f: int(f.stem[4:])):
        d = json.loads(f.read_text())
        m = d["measured"]
        line = [f"{f.stem:7s} {'SACK on ' if d['scenario'].get('sack', True) else 'SACK off'} measured "
                f"{m['goodput_bps'] / 1e6:7.1f} Mbit/s, {m['rx_units_per_s']:6.0f} ACKs/s"]
        for host, platform in HOSTS.items():
            e, g, acks = error(f, platform)
            errors[host][f.stem] = e
            line.append(f"{host} {g / 1e6:7.1f} ({e:+6.1%}, {acks:6.0f} ACKs/s)")
        print("; ".join(line))
    for host in HOSTS:
        print(f"{host}: median |error| over paths 8-10 "
              f"{statistics.median(abs(errors[host][k]) for k in ('path8', 'path9', 'path10')):.1%}")


if __name__ == "__main__":
    main()
