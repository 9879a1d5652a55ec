// The few system calls PrefsCore needs that the Swift Glibc module does not expose.
#ifndef CPREFS_SYSTEM_H
#define CPREFS_SYSTEM_H

#include <sys/types.h>

/// fsetxattr(2): sets an extended attribute of an open file. -1 and errno on failure.
int prefs_fsetxattr(int fd, const char *name, const void *value, size_t size);

/// fgetxattr(2): reads an extended attribute of an open file into `value`; its size, or -1 and errno.
ssize_t prefs_fgetxattr(int fd, const char *name, void *value, size_t size);

#endif
