#pragma once
// Whether a test is built with AddressSanitizer (scripts/test.sh, stage asan), for the checks that
// cannot run under it: ASan reserves terabytes of address space for its shadow memory when the
// process starts, so a limit on the address space (RLIMIT_AS, `ulimit -v`) makes a process
// started under it fail at once and later mappings of a running one fail (ASan aborts).
// NBODY_ASAN is 1 or 0. Header-only (tests/).
#if defined(__SANITIZE_ADDRESS__)
#define NBODY_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NBODY_ASAN 1
#endif
#endif
#ifndef NBODY_ASAN
#define NBODY_ASAN 0
#endif
