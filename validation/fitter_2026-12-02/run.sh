# The rules "tcpsim calibrate steps in each cost's own scale" and "A unit-free step of a factor 2": the committed fitter
# and the candidates on the four machines (results in /tmp/cal): MODES="old new new2" bash run.sh
set -u
for d in vm3_2026-12-01 vm4_2026-12-01 epyc_2026-12-01 zen2_2026-12-02; do
  for m in ${MODES:-old new}; do
    /tmp/venv-c/bin/python -P "$(dirname "$0")"/drive.py $m /work/main/validation/$d /tmp/cal/${d}_$m.toml > /tmp/cal/${d}_$m.log 2>&1
  done
done
echo finished > /tmp/cal/done
