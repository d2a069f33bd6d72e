# Summarises `nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.max.sm,power.draw,... --format=csv -lms N`
# (run with awk -F", "): the SM clock's mean, minimum and maximum and the mean power over the
# samples taken while the GPU was busy (clock above the idle level of 1000 MHz).
NR > 1 && $2 + 0 > 1000 {
    n++; s += $2; p += $4
    if (min == "" || $2 + 0 < min) min = $2 + 0
    if ($2 + 0 > max) max = $2 + 0
}
END {
    if (n == 0) { print "no busy samples"; exit 1 }
    printf "SM clock while busy: mean %.0f MHz, min %d, max %d over %d samples; mean power %.0f W\n", s / n, min, max, n, p / n
}
