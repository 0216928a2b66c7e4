# Header-only dependencies as imported targets, found in the Debian packages or
# in REMAT_EXTRA_INCLUDE (carried to machines that have no packages).
function(remat_header_target target header)
  find_path(${target}_DIR_FOUND ${header} HINTS ${REMAT_EXTRA_INCLUDE} ${ARGN})
  if(NOT ${target}_DIR_FOUND)
    message(FATAL_ERROR "remat: ${header} not found. Run scripts/deps.sh, or set REMAT_EXTRA_INCLUDE.")
  endif()
  add_library(${target} INTERFACE IMPORTED GLOBAL)
  # SYSTEM: their warnings are not ours.
  set_target_properties(${target} PROPERTIES INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${${target}_DIR_FOUND}"
                                             INTERFACE_INCLUDE_DIRECTORIES "${${target}_DIR_FOUND}")
endfunction()

remat_header_target(remat_json nlohmann/json.hpp)
remat_header_target(remat_cli11 CLI/CLI.hpp)
find_path(REMAT_EIGEN_DIR Eigen/Core HINTS ${REMAT_EXTRA_INCLUDE}/eigen3 /usr/include/eigen3)
if(REMAT_EIGEN_DIR)
  add_library(remat_eigen INTERFACE IMPORTED GLOBAL)
  set_target_properties(remat_eigen PROPERTIES INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${REMAT_EIGEN_DIR}"
                                               INTERFACE_INCLUDE_DIRECTORIES "${REMAT_EIGEN_DIR}")
endif()

if(REMAT_BUILD_TESTS OR REMAT_BUILD_STUDIO)
  find_package(Qt6 QUIET COMPONENTS Core Gui Widgets Test Concurrent)
endif()

# CBC (Debian's coinor-libcbc-dev) solves the exact graph planner's MILP.
# Optional: without it (the GPU machine has no such package) that planner
# says how to get it instead of planning.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(REMAT_CBC QUIET IMPORTED_TARGET cbc osi-clp)
endif()
if(REMAT_CBC_FOUND)
  message(STATUS "remat: CBC ${REMAT_CBC_cbc_VERSION} for the exact graph planner")
else()
  message(STATUS "remat: CBC not found (coinor-libcbc-dev): the exact graph planner is left out")
endif()
