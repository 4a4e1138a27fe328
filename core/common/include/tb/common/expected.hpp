// Expected<T>: the one error strategy of the core's public API.
//
// Functions that can fail on user input or the environment return
// Expected<T>; exceptions are kept for broken contracts (bugs). std::expected
// is C++23, and the engine must also build with older toolchains, so the core
// carries this small equivalent.
#pragma once

#include <cassert>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace tb {

/// What kind of failure an Error is; the CLI maps it to an exit code.
enum class ErrorKind {
  BadInput,   ///< the user gave a value that cannot be used (exit 2)
  NotFound,   ///< a named thing (file, tag, preset) does not exist (exit 2)
  Parse,      ///< a file exists but its content is malformed (exit 2)
  Io,         ///< reading or writing failed (exit 1)
  Runtime,    ///< anything else that went wrong while working (exit 1)
  Cancelled,  ///< the caller asked to stop (exit 1)
};

/// A failure with a message fit to show a user: it names the bad value.
struct Error {
  ErrorKind kind = ErrorKind::Runtime;
  std::string message;
};

[[nodiscard]] inline Error makeError(ErrorKind kind, std::string message) {
  return Error{kind, std::move(message)};
}

/// Either a value or an Error.
template <class T>
class [[nodiscard]] Expected {
 public:
  Expected(T value)
      : state_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Expected(Error error)
      : state_(std::in_place_index<1>, std::move(error)) {}  // NOLINT: implicit by design

  [[nodiscard]] bool ok() const noexcept { return state_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }

  [[nodiscard]] T& value() & {
    assert(ok());
    return std::get<0>(state_);
  }
  [[nodiscard]] const T& value() const& {
    assert(ok());
    return std::get<0>(state_);
  }
  [[nodiscard]] T&& value() && {
    assert(ok());
    return std::get<0>(std::move(state_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  [[nodiscard]] const Error& error() const& {
    assert(!ok());
    return std::get<1>(state_);
  }
  [[nodiscard]] Error&& error() && {
    assert(!ok());
    return std::get<1>(std::move(state_));
  }

 private:
  std::variant<T, Error> state_;
};

/// Success or an Error, for operations with no value to return.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT: implicit by design

  [[nodiscard]] bool ok() const noexcept { return ok_; }
  explicit operator bool() const noexcept { return ok_; }
  [[nodiscard]] const Error& error() const {
    assert(!ok_);
    return error_;
  }

 private:
  Error error_{};
  bool ok_ = true;
};

}  // namespace tb
