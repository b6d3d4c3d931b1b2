# Writes OUTPUT, the entries of Machine.cpp's table of built-in machines:
# {"NAME", R"hdjson(TEXT)hdjson"} for each NAME of NAMES (comma-separated),
# TEXT being DIR/NAME.json. Run at build time (cmake -P), so the library
# carries the files' text and the tools need no data files.
string(REPLACE "," ";" names "${NAMES}")
set(text "// Generated from lib/CostModel/machines/ by EmbedMachines.cmake.\n")
foreach(name IN LISTS names)
  set(path "${DIR}/${name}.json")
  file(READ "${path}" json)
  # A built-in is loaded by its file's name and reports the name inside;
  # they must agree (MachineTest checks the loaded name).
  string(JSON inner ERROR_VARIABLE error GET "${json}" name)
  if(error)
    message(FATAL_ERROR "${path}: ${error}")
  endif()
  if(NOT inner STREQUAL name)
    message(FATAL_ERROR "${path}: \"name\" is '${inner}', not '${name}'")
  endif()
  string(FIND "${json}" ")hdjson" end)
  if(NOT end EQUAL -1)
    message(FATAL_ERROR "${path}: contains ')hdjson', the raw string's end")
  endif()
  string(APPEND text "{\"${name}\", R\"hdjson(${json})hdjson\"},\n")
endforeach()
file(WRITE "${OUTPUT}" "${text}")
