// poppler core's headers include this as "poppler_private_export.h", from goo/ too: it lies beside
// them in <poppler/>, which is not on the include path (CPopplerText's headerSearchPath).
#include <poppler/poppler_private_export.h>
