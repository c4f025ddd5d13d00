# What `cmake --install` adds beside the programs (the docs and LICENSE; the
# programs, plugin, man page and completion are installed where they are
# built), and the .deb that `cpack -G DEB` makes from the same install.
install(FILES README.md LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}
        FILES_MATCHING PATTERN "*.md")

set(CPACK_PACKAGE_NAME lbr2prof)
set(CPACK_PACKAGE_VENDOR "lbr2prof")
set(CPACK_PACKAGE_CONTACT "lbr2prof maintainers <lbr2prof@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "turn branch-stack samples (perf record -b) into compiler profiles")
set(CPACK_PACKAGE_DESCRIPTION
    "lbr2prof reads perf.data (or perf script text) with Intel LBR, AMD LBRv2 or Arm BRBE branch stacks and writes LLVM sample profiles for clang -fprofile-sample-use and BOLT profiles for llvm-bolt. Includes text2perfdata (perf.data test inputs from text) and lbr-record (an emulated branch stack under qemu-user, for machines without LBR).")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# The programs are built without debug info but keep their symbol tables;
# the package does not need them.
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Library dependencies come from dpkg-shlibdeps (dpkg-dev) reading the ELF
# files, so they follow what is linked: with LLVM's static libraries (the
# default, LBR2PROF_LLVM_STATIC) that is libzstd1, zlib1g, libstdc++6,
# libgcc-s1 and libc6 (LLVM's Support names Z3 on Debian; lbr2prof links
# with --as-needed, and nothing calls it), and no libllvm19; with
# -DLBR2PROF_LLVM_STATIC=OFF libllvm19 appears by itself.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# lbr-record is a Python 3 script; it runs programs under qemu-user, which
# only that tool needs.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "qemu-user")
# debuginfod's client is opened at run time when DEBUGINFOD_URLS is set;
# lbr2prof-fleet, the distributed run, runs on Dask (python3-distributed,
# which brings python3-dask). The rest of the package works without them.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libdebuginfod1, python3-distributed")
include(CPack)
