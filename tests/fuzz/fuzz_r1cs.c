/* fuzz_r1cs: circom .r1cs (czk_circom_r1cs_parse: header, constraints into CSR, wire-to-label map).
 * Property: an accepted system is well formed: row_ptr monotone from 0 to nnz, columns strictly increasing within a
 * row and below n_wires, no zero coefficient, public counts within the wires. */
#include "czk/circom.h"
#include "czk/field.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  fuzz_quiet();
  return 0;
}

static void check_csr(const czk_csr *m, uint32_t rows, uint32_t n_wires) {
  FUZZ_CHECK(m->row_ptr[0] == 0 && m->row_ptr[rows] == m->nnz);
  for (uint32_t r = 0; r < rows; r++) {
    FUZZ_CHECK(m->row_ptr[r] <= m->row_ptr[r + 1]);
    for (uint64_t k = m->row_ptr[r]; k < m->row_ptr[r + 1]; k++) {
      FUZZ_CHECK(m->col[k] < n_wires);
      FUZZ_CHECK(k == m->row_ptr[r] || m->col[k - 1] < m->col[k]);
      FUZZ_CHECK(!czk_fr_is_zero(&m->val[k]));
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  czk_circom_r1cs *r = NULL;
  if (czk_circom_r1cs_parse(&r, data, size) != CZK_OK) return 0;
  FUZZ_CHECK(r->n_wires >= 1);
  FUZZ_CHECK((uint64_t)r->n_pub_out + r->n_pub_in + r->n_prv_in < r->n_wires);
  check_csr(&r->a, r->n_constraints, r->n_wires);
  check_csr(&r->b, r->n_constraints, r->n_wires);
  check_csr(&r->c, r->n_constraints, r->n_wires);
  czk_circom_r1cs_free(r);
  return 0;
}
