/* A dlclose() that keeps the module loaded, preloaded (LD_PRELOAD) into every process of the
 * AddressSanitizer stage of scripts/test.sh.
 *
 * Why: LeakSanitizer runs at exit, after libraries loaded with dlopen() have been unloaded again:
 * the OpenGL/EGL driver that glvnd loads (Mesa's libEGL_mesa, the DRI driver, LLVM), Qt's
 * platform and image plugins, Open MPI's components. A module's global variables are roots of
 * LeakSanitizer's reachability scan only while the module is mapped, so a buffer that a driver
 * keeps for the life of the process in a global (a reachable allocation, not a leak) is reported
 * as a leak once the driver is unmapped, with a stack that ends in "<unknown module>": no
 * suppression by library can match a module that is gone. Which driver, platform and number of
 * such buffers depends on the machine (the EGL vendor, Mesa's version, the platform it picks).
 *
 * With this dlclose() every module stays mapped until the process ends: memory a library still
 * points at stays reachable, and a real leak in a library is reported with the library's name,
 * which tests/sanitizers/lsan.supp can then match. Our own code is leak-checked as before.
 *
 * Returns 0 (success), as dlclose() does for a valid handle. Built by scripts/test.sh with the
 * system C compiler, without sanitizers (ASan's link-order check is turned off for it:
 * verify_asan_link_order=0). */
int dlclose(void *handle)
{
    (void)handle;
    return 0;
}
