#ifndef BACKPLANE_CLIBXML2_SHIM_H
#define BACKPLANE_CLIBXML2_SHIM_H
#include <libxml/xmlversion.h>
// Debian's libxml2 is built with ICU, and <libxml/encoding.h> then includes ICU's headers, whose
// UErrorCode clashes with the copy inside Foundation (_FoundationICU). Nothing here uses ICU
// converters, and only pointers to the structs that hold them cross into Swift, so the ICU
// parts of the headers are left out.
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlschemas.h>

/// xmlFree is a global function pointer, awkward to call from Swift.
static inline void backplane_xml_free(void *pointer) { xmlFree(pointer); }
#endif
