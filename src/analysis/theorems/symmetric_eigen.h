// Eigenvalues and eigenvectors of a small symmetric matrix by cyclic Jacobi rotations (Jacobi 1846;
// Golub & Van Loan, Matrix Computations §8.5): short, exact to rounding, and fast enough for the
// C×C matrices `tapeformer theorems` takes apart (C up to a few hundred).
#pragma once
#include <cstdint>
#include <vector>

namespace tf {

struct SymmetricEigen {
    std::vector<double> values;                // ascending
    std::vector<std::vector<double>> vectors;  // vectors[i]: the unit eigenvector of values[i]
};

// A: n×n, row-major, symmetric (A[i·n + j] = A[j·n + i]; only that matrix's eigenpairs are meaningful).
SymmetricEigen symmetric_eigen(const std::vector<double>& A, int64_t n);

}  // namespace tf
