/* cli_circom.h: the snarkjs-compatible forms of `czk prove` and `czk verify`, implemented in cmd_circom.c by the
 * circom/snarkjs side; cmd_prove.c / cmd_verify.c dispatch here on the file extension:
 *   czk prove  <circuit.zkey> <witness.wtns> <proof.json> <public.json>      (rapidsnark order; argv[0] = "prove")
 *   czk verify <verification_key.json> <public.json> <proof.json>            (snarkjs order;    argv[0] = "verify")
 * Same return convention as subcommands: 0 ok, 1 failure (message on stderr), 2 usage. */
#ifndef CZK_CLI_CIRCOM_H
#define CZK_CLI_CIRCOM_H

int czk__cmd_prove_zkey(int argc, char **argv);
int czk__cmd_verify_snarkjs(int argc, char **argv);

#endif
