# Sourced by the load and profile scripts: the machine, and what a process has used so far, from
# /proc (Linux). Counters are read before and after a run; their difference is the run's.

machine_line() {
  echo "machine: $(nproc) cores, $(awk '/MemTotal/ {print $2 " kB"}' /proc/meminfo), $(uname -sr), load average $(cut -d' ' -f1-3 /proc/loadavg)"
}

# PID: user + system CPU time in microseconds (fields 14 and 15 of stat; the comm field has no spaces).
cpu_us() {
  awk -v hz="$(getconf CLK_TCK)" '{printf "%.0f\n", ($14 + $15) * 1000000 / hz}' "/proc/$1/stat"
}

# PID: bytes the process has passed to write calls: files (a ledger's WAL and checkpoints) and
# sockets (its answers). Not the kernel's write_bytes, which counts each page-cache folio a write
# dirties in full: on a copied ledger of 2.4 GB it gave three times what reached the disk.
written_bytes() {
  awk '/^wchar:/ {print $2}' "/proc/$1/io"
}

# PID: resident memory, "N kB".
rss() {
  awk '/VmRSS/ {print $2 " kB"}' "/proc/$1/status"
}

# PID COMMAND...: runs COMMAND (wrk with a script whose last line starts with the request count) and
# prints that line, then PID's CPU microseconds and kB written, each per request.
measured() {
  local pid=$1 cpu written answer
  shift
  cpu=$(cpu_us "$pid") written=$(written_bytes "$pid")
  answer=$("$@" | tail -n 1)
  awk -v answer="$answer" -v cpu=$(( $(cpu_us "$pid") - cpu )) -v written=$(( $(written_bytes "$pid") - written )) \
    'BEGIN { split(answer, f, " "); n = f[1] > 0 ? f[1] : 1; printf "%s %.0f %.1f\n", answer, cpu / n, written / 1024 / n }'
}
