// Host name lookups without NSS modules. glibc's getaddrinfo loads the modules that the `hosts:` line
// of /etc/nsswitch.conf names (myhostname, mymachines, mdns4_minimal, resolve, ldap…) with dlopen. A
// statically linked program cannot load them safely: each brings a second libc, uninitialised. Since
// glibc 2.34 the `files` and `dns` services are built into libc itself, static or not, and
// __nss_configure_lookup (nss.h) makes them the whole `hosts` database of this process.
#include "CPrefsSystem.h"

#if defined(__linux__)
#include <sys/auxv.h>
#endif
#if defined(__GLIBC__)
#include <nss.h>
#endif

int prefs_is_statically_linked(void) {
#if defined(__linux__)
    // No program interpreter (ld.so) was mapped: the kernel started this program itself.
    return getauxval(AT_BASE) == 0;
#else
    return 0;
#endif
}

int prefs_hosts_from_files_and_dns(void) {
#if defined(__GLIBC__)
    return __nss_configure_lookup("hosts", "files dns");
#else
    return 0;
#endif
}
