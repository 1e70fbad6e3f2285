/* The block file that libcovkit-blocks writes at exit and covkit's
 * blocks/block_file reads (docs/covkit-blocks.md), a text file:
 *
 *   covkit-blocks 1
 *   pid PID
 *   dropped PCS GUARDS INLINE MISMATCHED 0
 *   module BIAS PATH          (then its blocks, addresses relative to BIAS)
 *   b ADDR COUNT              a block that ran COUNT times (trace-pc, guards)
 *   w ADDR COUNT              an inline 8-bit counter: COUNT modulo 256
 *   f ADDR FLAG               an inline bool flag: 1 ran, 0 did not
 *   end
 *
 * ADDR and BIAS are hexadecimal; a module's ADDR is the block's address in
 * its file (the address in the process less BIAS). */
#ifndef COVKIT_BLOCK_CONTRACT_H
#define COVKIT_BLOCK_CONTRACT_H

#define CKB_MAGIC "covkit-blocks 1"
#define CKB_FILE_ENV "COVKIT_BLOCKS_FILE"
#define CKB_DEFAULT_FILE "covkit-blocks.%p"

#endif
