# NLopt, for Camber::optimization (SLSQP, MMA, CCSAQ).
#
#   include(CamberNLopt)
#   camber_find_nlopt(found message)   # defines NLopt::nlopt when found
#
# Looks for NLopt's own CMake package first (target NLopt::nlopt; Debian's
# libnlopt-dev ships it), then for its pkg-config file nlopt.pc, from which
# it makes an imported target of the same name, so that every Camber target
# and the installed package refer to NLopt::nlopt either way. The target is
# made global: a static Camber::optimization carries it in its link
# interface into other folders (tests, apps).
#
# The build calls this from optimization/CMakeLists.txt and stops with
# `message` when NLopt is missing; the installed CamberConfig.cmake includes
# this file too (it is installed beside it) and turns `message` into
# Camber_NOT_FOUND_MESSAGE when the optimization component is requested.
# -DNLopt_DIR=<prefix>/lib/cmake/nlopt or PKG_CONFIG_PATH point elsewhere.

macro(camber_find_nlopt found_var message_var)
  set(${found_var} FALSE)
  set(${message_var} "")
  if(NOT TARGET NLopt::nlopt)
    find_package(NLopt CONFIG QUIET)
  endif()
  if(NOT TARGET NLopt::nlopt)
    find_package(PkgConfig QUIET)
    if(PKG_CONFIG_FOUND)
      pkg_check_modules(CAMBER_NLOPT_PC QUIET nlopt)
    endif()
    if(CAMBER_NLOPT_PC_FOUND)
      find_library(CAMBER_NLOPT_LIBRARY NAMES nlopt
                   HINTS ${CAMBER_NLOPT_PC_LIBRARY_DIRS} NO_CACHE)
      if(CAMBER_NLOPT_LIBRARY)
        add_library(NLopt::nlopt UNKNOWN IMPORTED GLOBAL)
        set_target_properties(NLopt::nlopt PROPERTIES
          IMPORTED_LOCATION "${CAMBER_NLOPT_LIBRARY}"
          INTERFACE_INCLUDE_DIRECTORIES "${CAMBER_NLOPT_PC_INCLUDE_DIRS}")
      endif()
    endif()
  endif()
  if(TARGET NLopt::nlopt)
    get_target_property(_camber_nlopt_global NLopt::nlopt IMPORTED_GLOBAL)
    if(NOT _camber_nlopt_global)
      set_target_properties(NLopt::nlopt PROPERTIES IMPORTED_GLOBAL TRUE)
    endif()
    set(${found_var} TRUE)
  else()
    set(${message_var} "Camber::optimization needs NLopt (nlopt.h and libnlopt; 2.7 is tested), found \
neither through NLopt's CMake package (NLoptConfig.cmake) nor through pkg-config (nlopt.pc). \
Debian/Ubuntu: apt-get install libnlopt-dev libnlopt-cxx-dev; elsewhere set \
-DNLopt_DIR=<prefix>/lib/cmake/nlopt or add <prefix>/lib/pkgconfig to PKG_CONFIG_PATH.")
  endif()
endmacro()
