//===- Sanitizers.h - what the unit tests know of a sanitizer build -----===//
//
// LBR2PROF_UNDER_ASAN is 1 when AddressSanitizer is linked in (GCC's
// __SANITIZE_ADDRESS__, clang's __has_feature), whose runtime brings its
// own malloc and thousands of functions of its own.
//
//===----------------------------------------------------------------------===//
#ifndef LBR2PROF_UNITTESTS_SANITIZERS_H
#define LBR2PROF_UNITTESTS_SANITIZERS_H

#if defined(__SANITIZE_ADDRESS__)
#define LBR2PROF_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LBR2PROF_UNDER_ASAN 1
#endif
#endif
#ifndef LBR2PROF_UNDER_ASAN
#define LBR2PROF_UNDER_ASAN 0
#endif

#endif
