# LLVM 19 bug: DWARFDebugFrame::parse looks an .eh_frame FDE's CIE up by the
# offset its CIE pointer gives, unchecked. A pointer one more than the offset
# of its own field gives (uint64_t)-1, DenseMap's reserved empty key, and the
# lookup crashes (a CIE must come first, so that the map has buckets).
# Found by the dump_elf target (regressions/dump_elf/eh_frame-cie-pointer-densemap-empty-key).
# crashes: llvm-dwarfdump-19 --eh-frame
# dump_syms warns: .eh_frame: the FDE at offset 0x10 names no CIE before it
	.section .eh_frame,"a",@progbits
	.long 12            # a CIE at 0
	.long 0             # CIE id
	.byte 1             # version
	.asciz ""           # no augmentation
	.uleb128 1          # code alignment
	.sleb128 -8         # data alignment
	.byte 16            # return address register
	.byte 0, 0, 0       # DW_CFA_nop
	.long 20            # an FDE at 16
	.long 21            # its CIE pointer, at 20: 21 bytes back is offset -1
	.quad 0             # initial location
	.quad 16            # address range
	.text               # code, so that dump_syms can identify the module
	ret
