# One binary, several instruction sets: sources that do the dense math are
# compiled once per variant, each with its own -m flags, and the CPU backend
# picks the fastest the CPU runs (core/executor/cpu_kernels.h). Each variant's
# object gets
#   REMAT_ISA_NAMESPACE=isa_<name>  the namespace its code lives in, and
#   Eigen=remat_eigen_isa_<name>    Eigen's namespace renamed,
# so that no inline function (Eigen's templates included) of one variant can be
# merged with another's at link time; the test isa_objects_keep_to_themselves
# checks the symbols. Keep the standard library's inline functions out of them.

# Variants, slowest first, and their flags. Outside x86-64 only the baseline,
# which is whatever the project compiles for.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  set(REMAT_ISA_VARIANTS baseline avx2 avx512)
else()
  set(REMAT_ISA_VARIANTS baseline)
endif()
set(REMAT_ISA_FLAGS_baseline "")
set(REMAT_ISA_FLAGS_avx2 -mavx2 -mfma)
set(REMAT_ISA_FLAGS_avx512 -mavx2 -mfma -mavx512f -mavx512cd -mavx512bw -mavx512dq -mavx512vl)

# remat_add_isa_object(<target> <name> SOURCES <files...> FLAGS <flags...>)
# Compiles the sources once more into <target> as variant <name> with <flags>.
# Calling it again for the same target and name adds sources to that object.
function(remat_add_isa_object target name)
  cmake_parse_arguments(V "" "" "SOURCES;FLAGS" ${ARGN})
  set(object ${target}_isa_${name})
  if(TARGET ${object})
    target_sources(${object} PRIVATE ${V_SOURCES})
    return()
  endif()
  add_library(${object} OBJECT ${V_SOURCES})
  # GCC 12 warns about the deliberately undefined value of _mm512_undefined_ps
  # once Eigen's AVX-512 code is inlined (a known false positive), and about
  # the vector attributes of Eigen's packet types used as template arguments.
  # Optimised even in Debug: unoptimised code keeps out-of-line copies of the
  # standard library's inline functions (std::min, ...), which are not renamed.
  target_compile_options(${object} PRIVATE ${V_FLAGS} $<$<CONFIG:Debug>:-O2>
                                           $<$<CXX_COMPILER_ID:GNU>:-Wno-maybe-uninitialized -Wno-uninitialized -Wno-ignored-attributes>)
  target_compile_definitions(${object} PRIVATE REMAT_ISA_NAMESPACE=isa_${name} Eigen=remat_eigen_isa_${name})
  target_include_directories(${object} PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(${object} PRIVATE remat_eigen remat_warnings)
  target_sources(${target} PRIVATE $<TARGET_OBJECTS:${object}>)
endfunction()

# remat_add_isa_variants(<target> SOURCES <files...>)
# Compiles the sources once per variant into <target> and defines
# REMAT_ISA_HAVE_<NAME> on <target> for each, for its dispatcher.
function(remat_add_isa_variants target)
  cmake_parse_arguments(V "" "" "SOURCES" ${ARGN})
  foreach(isa ${REMAT_ISA_VARIANTS})
    remat_add_isa_object(${target} ${isa} SOURCES ${V_SOURCES} FLAGS ${REMAT_ISA_FLAGS_${isa}})
    string(TOUPPER ${isa} upper)
    target_compile_definitions(${target} PRIVATE REMAT_ISA_HAVE_${upper})
  endforeach()
endfunction()
