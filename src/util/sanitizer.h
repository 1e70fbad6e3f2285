#pragma once
// COVKIT_ASAN is 1 in a build under AddressSanitizer: GCC says so with
// __SANITIZE_ADDRESS__, clang (the sanitized CI build) with __has_feature.
// Code that leaves memory to the exit on purpose frees it there instead, so
// that leak checking sees the whole program.
#if defined(__SANITIZE_ADDRESS__)
#define COVKIT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define COVKIT_ASAN 1
#endif
#endif
#ifndef COVKIT_ASAN
#define COVKIT_ASAN 0
#endif
