# horseqc_module(<name> [DEPS <targets>...])
# Declares the static library hqc_<name> from every .cpp in the current folder (recursively),
# so adding a pass or an operator file needs no CMake edit.
function(horseqc_module name)
  cmake_parse_arguments(M "" "" "DEPS" ${ARGN})
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  add_library(hqc_${name} STATIC ${srcs})
  target_link_libraries(hqc_${name} PUBLIC ${M_DEPS} PRIVATE horseqc_warnings)
endfunction()

# horseqc_test(<name> SOURCES <files> DEPS <targets>)
# One doctest executable per module test folder, registered with CTest under the label <name>.
function(horseqc_test name)
  cmake_parse_arguments(T "" "" "SOURCES;DEPS;PROPERTIES" ${ARGN})
  add_executable(test_${name} ${T_SOURCES} ${CMAKE_SOURCE_DIR}/tests/doctest_main.cpp)
  target_link_libraries(test_${name} PRIVATE ${T_DEPS} doctest::doctest horseqc_warnings)
  set_target_properties(test_${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  add_test(NAME ${name} COMMAND test_${name} WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(${name} PROPERTIES LABELS ${name}
    ENVIRONMENT "HORSEQC_SOURCE_DIR=${CMAKE_SOURCE_DIR};HORSEQC_BINARY_DIR=${CMAKE_BINARY_DIR}" ${T_PROPERTIES})
endfunction()

# horseqc_embed_files(<target> NAMESPACE <ns> COMMENT <text> GLOBS <patterns relative to the folder>...)
# Embeds the matching files of the current folder into <target> as string literals
# (templates/embed_templates.cmake), reachable as <ns>::embedded_files() (templates/embedded.h).
# Adding a matching file needs no CMake edit; an unchanged file rebuilds nothing.
function(horseqc_embed_files target)
  cmake_parse_arguments(E "" "NAMESPACE;COMMENT" "GLOBS" ${ARGN})
  set(patterns "")
  foreach(g IN LISTS E_GLOBS)
    list(APPEND patterns ${CMAKE_CURRENT_SOURCE_DIR}/${g})
  endforeach()
  file(GLOB_RECURSE files CONFIGURE_DEPENDS RELATIVE ${CMAKE_CURRENT_SOURCE_DIR} ${patterns})
  list(SORT files)
  set(abs "")
  foreach(f IN LISTS files)
    list(APPEND abs ${CMAKE_CURRENT_SOURCE_DIR}/${f})
  endforeach()
  # "|"-separated: a ";" list would be split or escaped differently by each generator's shell.
  string(REPLACE ";" "|" file_list "${files}")
  set(out ${CMAKE_CURRENT_BINARY_DIR}/embedded_${target}.cpp)
  set(script ${CMAKE_SOURCE_DIR}/templates/embed_templates.cmake)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${out} -DROOT=${CMAKE_CURRENT_SOURCE_DIR} "-DFILES=${file_list}"
            -DNAMESPACE=${E_NAMESPACE} -P ${script}
    DEPENDS ${abs} ${script}
    COMMENT "${E_COMMENT}"
    VERBATIM)
  target_sources(${target} PRIVATE ${out})
endfunction()
