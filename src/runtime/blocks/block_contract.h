/* The block file that libcovkit-blocks writes at exit and covkit's
 * blocks/block_file reads (docs/covkit-blocks.md), a text file:
 *
 *   covkit-blocks 1
 *   pid PID
 *   dropped PCS GUARDS INLINE MISMATCHED TRACE UNMAPPED
 *   module BIAS PATH          (then its blocks, addresses relative to BIAS)
 *   b ADDR COUNT              a block that ran COUNT times (trace-pc, guards)
 *   w ADDR COUNT              an inline 8-bit counter: COUNT modulo 256
 *   f ADDR FLAG               an inline bool flag: 1 ran, 0 did not
 *   end
 *
 * ADDR and BIAS are hexadecimal; a module's ADDR is the block's address in
 * its file (the address in the process less BIAS). TRACE counts the block
 * trace's events not kept (0 without a trace); UNMAPPED the blocks that
 * ran in a module unloaded before exit (dlclose), whose addresses no
 * module holds any more (files of earlier runtimes end at TRACE).
 *
 * With COVKIT_BLOCKS_TRACE=SIZE, the block trace beside it (the block
 * file's path + ".trace"): text lines, then the events, then "end":
 *
 *   covkit-block-trace 1
 *   pid PID
 *   bound EVENTS              at most this many events kept (SIZE / 4)
 *   dropped PAST LOST         events past the bound; events of a trace-pc
 *                             address the table had no room for
 *   module BIAS PATH          (then the ids of its blocks)
 *   i ID ADDR                 hexadecimal: a block id and its address in
 *                             the module's file
 *   events N
 *   N ids, 4 bytes each, little-endian, in the order their events were
 *   claimed (threads interleave); 0: claimed, not yet written at exit
 *   end
 *
 * A guard's id is its index; a trace-pc address's id is CKB_TRACE_PC_ID |
 * its slot. */
#ifndef COVKIT_BLOCK_CONTRACT_H
#define COVKIT_BLOCK_CONTRACT_H

#define CKB_MAGIC "covkit-blocks 1"
#define CKB_FILE_ENV "COVKIT_BLOCKS_FILE"
#define CKB_DEFAULT_FILE "covkit-blocks.%p"
#define CKB_TRACE_MAGIC "covkit-block-trace 1"
#define CKB_TRACE_ENV "COVKIT_BLOCKS_TRACE"
#define CKB_TRACE_SUFFIX ".trace"
#define CKB_TRACE_PC_ID 0x80000000u

#endif
