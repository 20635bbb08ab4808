# SEEKTRACE_GLIBC_SYSROOT=DIR, a sysroot made by tests/glibc/sysroot.sh:
# the tree is built against DIR's glibc, Linux headers, GCC runtime and
# libraries (elfutils, cmocka), so that the library, the command and the
# test programs load on that glibc and on every newer one (README "Which
# glibc"). The compiler, binutils and the programs run at build time stay
# the machine's. Included before project(), as a toolchain file would be:
# set it when configuring a new build directory.
set(SEEKTRACE_GLIBC_SYSROOT "" CACHE PATH
    "build against the glibc of this sysroot (tests/glibc/sysroot.sh), to run on it and every newer one")
if(NOT SEEKTRACE_GLIBC_SYSROOT)
  return()
endif()
if(NOT EXISTS ${SEEKTRACE_GLIBC_SYSROOT}/.complete)
  message(FATAL_ERROR "SEEKTRACE_GLIBC_SYSROOT: ${SEEKTRACE_GLIBC_SYSROOT} is not a sysroot "
                      "made by tests/glibc/sysroot.sh")
endif()
set(sysroot ${SEEKTRACE_GLIBC_SYSROOT})
file(STRINGS ${sysroot}/.multiarch sysroot_multiarch)
file(STRINGS ${sysroot}/.gcc sysroot_gcc)

set(CMAKE_SYSROOT ${sysroot})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(ENV{PKG_CONFIG_LIBDIR}
    ${sysroot}/usr/lib/${sysroot_multiarch}/pkgconfig:${sysroot}/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_SYSROOT_DIR} ${sysroot})

# GCC searches its own multiarch directory (the machine's libraries and
# crt1.o) before the sysroot's: the sysroot's come first. So does the
# sysroot's GCC runtime: its libgcc_eh unwinder (linked into the library)
# and libstdc++ need nothing newer than its glibc. C++ programs link
# libstdc++ and libgcc statically, so they run on that glibc without its
# libstdc++ installed; the C++ headers are that libstdc++'s.
set(sysroot_link "-B${sysroot}/usr/lib/${sysroot_multiarch}/ -L${sysroot}/lib/${sysroot_multiarch}")
string(APPEND sysroot_link " -L${sysroot}/usr/lib/${sysroot_multiarch}")
string(APPEND sysroot_link " -L${sysroot}/usr/lib/gcc/${sysroot_multiarch}/${sysroot_gcc}")
# The _INIT flags only reach a new build directory's cache.
if(DEFINED CACHE{CMAKE_EXE_LINKER_FLAGS})
  string(FIND "$CACHE{CMAKE_EXE_LINKER_FLAGS}" "${sysroot_link}" found)
  if(found LESS 0)
    message(FATAL_ERROR "SEEKTRACE_GLIBC_SYSROOT: ${CMAKE_BINARY_DIR} was configured without "
                        "this sysroot; configure a new build directory with it")
  endif()
endif()
set(CMAKE_SHARED_LINKER_FLAGS_INIT "${sysroot_link}")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "${sysroot_link}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${sysroot_link} -static-libstdc++ -static-libgcc")
set(CMAKE_CXX_FLAGS_INIT "-nostdinc++ -isystem ${sysroot}/usr/include/c++/${sysroot_gcc}")
string(APPEND CMAKE_CXX_FLAGS_INIT " -isystem ${sysroot}/usr/include/${sysroot_multiarch}/c++/${sysroot_gcc}")
