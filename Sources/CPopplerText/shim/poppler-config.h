// poppler core's headers include this as "poppler-config.h", from goo/ too: it lies beside them in
// <poppler/>, which is not on the include path (CPopplerText's headerSearchPath).
#include <poppler/poppler-config.h>
