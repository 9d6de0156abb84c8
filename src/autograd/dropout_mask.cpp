// The batch's first global row, for dropout masks (autograd/dropout_mask.h).
#include "autograd/dropout_mask.h"

namespace tf {

namespace {
// Per thread: a batch is run by the thread that calls forward (kernels fan out below the ops).
thread_local int64_t t_first_row = 0;
}  // namespace

int64_t batch_first_row() { return t_first_row; }

BatchRowsScope::BatchRowsScope(int64_t first_row) : previous_(t_first_row) { t_first_row = first_row; }

BatchRowsScope::~BatchRowsScope() { t_first_row = previous_; }

}  // namespace tf
