# LLVM 19 bug: DWARFDebugInfoEntry::extractFast skips a DIE's values without
# checking the offset against the section: a DW_FORM_exprloc length of 4 GiB
# moves it far past .debug_info, and the next value, a ULEB128, is read from
# there (SEGV in DataExtractor::getULEB128 under DWARFFormValue::skipValue).
# Found by the dwarf_sections target (regressions/dwarf_sections/
# call-site-parameter-exprloc-past-section-end).
# crashes: llvm-dwarfdump-19 --debug-info
# dump_syms warns: .debug_info: the DIE at offset 0xc runs past the end of its unit
	.section .debug_abbrev,"",@progbits
	.uleb128 1          # abbreviation 1
	.uleb128 0x11       # DW_TAG_compile_unit
	.byte 0             # no children
	.uleb128 0x02       # DW_AT_location
	.uleb128 0x18       # DW_FORM_exprloc
	.uleb128 0x03       # DW_AT_name
	.uleb128 0x0f       # DW_FORM_udata
	.byte 0, 0
	.byte 0
	.section .debug_info,"",@progbits
	.long .Lend - .Lstart
.Lstart:
	.short 5            # DWARF 5
	.byte 1             # DW_UT_compile
	.byte 8             # address size
	.long 0             # abbreviations at 0
	.uleb128 1          # the unit DIE
	.uleb128 0x100000000  # DW_AT_location: 4 GiB of expression
	.uleb128 1          # DW_AT_name, read 4 GiB further on
.Lend:
	.text               # code, so that dump_syms can identify the module
	ret
