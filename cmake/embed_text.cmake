# cmake -DINPUT=FILE -DOUTPUT=FILE.cpp -DNAME=kName -P embed_text.cmake
# Writes OUTPUT, a C++ file that defines `const char* const tf::NAME` as the text of INPUT (a raw
# string literal), so a file the program writes out (the exported model.py) stays a file of its
# own in the repository, readable and runnable as it is.
file(READ "${INPUT}" text)
file(WRITE "${OUTPUT}" "// Generated from ${INPUT} by cmake/embed_text.cmake: edit that file, not this one.
namespace tf {
extern const char* const ${NAME};
const char* const ${NAME} = R\"embedded(${text})embedded\";
}  // namespace tf
")
