// `--reference` (cli/reference_option.h).
#include "cli/reference_option.h"

namespace tf::cli {

CLI::Option* add_reference_flag(CLI::App& command, bool& reference) {
    return command.add_flag("--reference", reference,
                            "run every op on its readable form (attention composed from matmul, mask and softmax; "
                            "linear as matmul + add): the same function as the fast path, slower; docs/design.md");
}

kernels::KernelPath kernel_path(bool reference_flag, kernels::KernelPath configured) {
    return reference_flag ? kernels::KernelPath::reference : configured;
}

}  // namespace tf::cli
