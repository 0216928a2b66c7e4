#pragma once
// A callable passed down without owning it or allocating: what the CPU
// backend's parallel regions take, so that running an op never touches the
// heap (std::function may allocate for a lambda with a few captures). It
// refers to the caller's callable and must not outlive the call it is given to.
#include <memory>
#include <type_traits>
#include <utility>

namespace remat::exec {

template <class Signature> class FunctionRef;

template <class R, class... Args> class FunctionRef<R(Args...)> {
public:
    FunctionRef() = default; // refers to nothing: operator bool is false
    template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, FunctionRef>>>
    FunctionRef(F &&f) noexcept // NOLINT: converts like std::function does
        : object_(const_cast<void *>(static_cast<const void *>(std::addressof(f)))),
          call_([](void *object, Args... args) -> R {
              return (*static_cast<std::remove_reference_t<F> *>(object))(std::forward<Args>(args)...);
          }) {}

    R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }
    explicit operator bool() const { return call_ != nullptr; }

private:
    void *object_ = nullptr;
    R (*call_)(void *, Args...) = nullptr;
};

} // namespace remat::exec
