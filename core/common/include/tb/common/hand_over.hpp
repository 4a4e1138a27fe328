// ThreadSanitizer learns that one thread's writes are visible to another
// from the synchronisation it sees: pthread calls, and atomics in code built
// with it. A hand-over through an uninstrumented library's own queue (Qt's
// thread pool and event queue lock a futex inside libQt6Core) is invisible to
// it, so everything handed over that way would look like a race. These mark
// such a hand-over: the sending thread calls handOver(object) once the object
// is complete, the receiving thread tookOver(object) before it reads it.
// They compile to nothing unless the build has ThreadSanitizer (the tsan
// preset, tests/sanitizers/run-tsan.sh).
#pragma once

#if defined(__SANITIZE_THREAD__)
#define TB_THREAD_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TB_THREAD_SANITIZER 1
#endif
#endif

#ifdef TB_THREAD_SANITIZER
extern "C" void __tsan_acquire(void* addr);  // NOLINT(bugprone-reserved-identifier)
extern "C" void __tsan_release(void* addr);  // NOLINT(bugprone-reserved-identifier)
#endif

namespace tb {

/// Everything this thread wrote before the call happens before whatever the
/// thread that calls tookOver(object) does after it.
inline void handOver([[maybe_unused]] const void* object) noexcept {
#ifdef TB_THREAD_SANITIZER
  __tsan_release(const_cast<void*>(object));  // NOLINT(cppcoreguidelines-pro-type-const-cast)
#endif
}

/// The receiving side of handOver(object).
inline void tookOver([[maybe_unused]] const void* object) noexcept {
#ifdef TB_THREAD_SANITIZER
  __tsan_acquire(const_cast<void*>(object));  // NOLINT(cppcoreguidelines-pro-type-const-cast)
#endif
}

}  // namespace tb
