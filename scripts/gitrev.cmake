# Writes OUT (a C header defining SPECTRO_GIT_REV) from `git describe` of SRC, at build
# time, and only when it changed, so that --version names the revision that was built
# without rebuilding anything else. Outside a git checkout the revision is "unknown".
#   cmake -DSRC=<source dir> -DOUT=<header> -P scripts/gitrev.cmake
execute_process(COMMAND git -C "${SRC}" describe --always --dirty --abbrev=12
                OUTPUT_VARIABLE rev OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR rev STREQUAL "")
  set(rev unknown)
endif()
set(text "#define SPECTRO_GIT_REV \"${rev}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
