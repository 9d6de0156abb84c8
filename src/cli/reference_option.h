// `--reference`: run a command on the readable form of every op (autograd/kernels/mode.h).
#pragma once
#include <CLI/CLI.hpp>

#include "autograd/kernels/mode.h"

namespace tf::cli {

// Adds `--reference` to `command`, storing into `reference`.
CLI::Option* add_reference_flag(CLI::App& command, bool& reference);

// The path a command on a saved run takes: the readable one when --reference was given or the run's
// config asks for it ("kernels": "reference"), else the fast one.
kernels::KernelPath kernel_path(bool reference_flag, kernels::KernelPath configured);

}  // namespace tf::cli
