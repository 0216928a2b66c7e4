# -Wall -Wextra on every C++ target of the project (not on third-party code).
add_library(remat_warnings INTERFACE)
target_compile_options(remat_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${REMAT_WERROR}>>:-Werror>)
