# LLVM 19 bug: DWARFDebugFrame::parse reads a CIE of any version it does not
# know (here 58) as a version-4 CIE, its address size from the next byte (0);
# DW_CFA_set_loc then reads an address of 0 bytes, DataExtractor::getUnsigned
# reaches llvm_unreachable, and a release build jumps to a garbage address.
# Found by the dump_elf and dwarf_sections targets (regressions/dump_elf/
# eh_frame-cie-version-58-address-size-0 and eh_frame-entry-past-section-end).
# crashes: llvm-dwarfdump-19 --eh-frame
# dump_syms warns: .eh_frame: the CIE at offset 0x0 has version 58
	.section .eh_frame,"a",@progbits
	.long .Lend - .Lstart
.Lstart:
	.long 0             # CIE id
	.byte 58            # version 58: there is no such version
	.asciz ""           # no augmentation
	.byte 0             # address size 0, as a version-4 CIE reads it
	.byte 0             # segment selector size
	.uleb128 1          # code alignment
	.sleb128 -8         # data alignment
	.uleb128 16         # return address register
	.byte 0x01          # DW_CFA_set_loc: an address of 0 bytes
	.quad 0
.Lend:
	.text               # code, so that dump_syms can identify the module
	ret
