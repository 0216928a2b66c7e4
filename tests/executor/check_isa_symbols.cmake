# cmake -DNM=<nm> -DOBJECTS=<object|object|...> -P check_isa_symbols.cmake
#
# An object of a kernel variant built for AVX2 or AVX-512 must not define a
# weak or unique symbol (an inline function, a template instance) outside its
# own namespaces isa_<name> and remat_eigen_isa_<name>: the linker keeps one
# copy of such a symbol for the whole program and may pick that one, and the
# program would then stop with an illegal instruction on a CPU without AVX.
string(REPLACE "|" ";" objects "${OBJECTS}")
set(bad "")
set(variants "")
foreach(object ${objects})
  if(NOT object MATCHES "_isa_([a-z0-9]+)\\.dir")
    message(FATAL_ERROR "cannot tell the variant of ${object}")
  endif()
  set(variant ${CMAKE_MATCH_1})
  # Mangled names: no brackets or semicolons to upset CMake lists.
  execute_process(COMMAND ${NM} --defined-only ${object} OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} failed on ${object}")
  endif()
  string(REPLACE "\n" ";" lines "${symbols}")
  set(own 0)
  list(APPEND variants ${variant})
  foreach(line ${lines})
    if(line MATCHES " [WwVvu] (.+)$")
      set(symbol "${CMAKE_MATCH_1}")
      if(symbol MATCHES "isa_${variant}")
        math(EXPR own "${own} + 1")
      elseif(NOT symbol STREQUAL "DW.ref.__gxx_personality_v0") # a pointer to the C++ runtime's own function
        list(APPEND bad "${variant}: ${symbol}")
      endif()
    endif()
  endforeach()
  math(EXPR own_${variant} "${own_${variant}}+0 + ${own}")
  message(STATUS "${object}: ${own} weak symbols, all in isa_${variant}")
endforeach()
list(REMOVE_DUPLICATES variants)
foreach(variant ${variants})
  if(own_${variant} EQUAL 0) # the renaming must be visible, or this check checks nothing
    list(APPEND bad "${variant}: no weak symbol in isa_${variant} in any of its objects")
  endif()
endforeach()
if(bad)
  list(JOIN bad "\n  " text)
  message(FATAL_ERROR "kernel variants define shared weak symbols:\n  ${text}")
endif()
