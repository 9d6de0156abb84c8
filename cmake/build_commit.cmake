# Writes OUTPUT from cmake/build_commit.h.in with TF_BUILD_COMMIT, the commit of SOURCE_DIR:
#   cmake -DSOURCE_DIR=<tree> -DOUTPUT=<header> -P cmake/build_commit.cmake
# `git describe --always --dirty` when git and SOURCE_DIR/.git exist (a worktree's .git is a file);
# "unknown" otherwise: a student's plain copy of the tree, or git that fails. Without the .git test a
# copy inside some other repository would report that repository's commit.
set(TF_BUILD_COMMIT unknown)
find_program(TF_GIT git)
if(TF_GIT AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(COMMAND "${TF_GIT}" -C "${SOURCE_DIR}" describe --always --dirty
                  OUTPUT_VARIABLE described OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE failed)
  if(failed EQUAL 0 AND NOT described STREQUAL "")
    string(REPLACE "\"" "" TF_BUILD_COMMIT "${described}")   # a tag may hold a quote; the header's string may not
  endif()
endif()
# configure_file leaves OUTPUT untouched when its text is the same: nothing recompiles.
configure_file("${CMAKE_CURRENT_LIST_DIR}/build_commit.h.in" "${OUTPUT}" @ONLY)
