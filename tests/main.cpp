// The Catch2 entry point for the whole suite: the same main for Catch2 v2 and v3.
#define CATCH_CONFIG_RUNNER   // Catch2 v2: compile its implementation here, without its own main
#include "catch.h"

int main(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
