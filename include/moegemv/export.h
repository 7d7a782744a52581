/* What libmoegemv.so exports. The library is compiled with -fvisibility=hidden and
 * -fvisibility-inlines-hidden, so only declarations marked MOEGEMV_API are in its dynamic symbol
 * table; a class marked MOEGEMV_API also exports its typeinfo and vtable, which is what lets a
 * caller catch moegemv's exceptions thrown from inside the .so. A consumer needs the mark too: a
 * consumer compiled with -fvisibility=hidden would otherwise take these functions for its own.
 * C and C++. */
#ifndef MOEGEMV_EXPORT_H_
#define MOEGEMV_EXPORT_H_

#if defined(__GNUC__) || defined(__clang__)
#define MOEGEMV_API __attribute__((visibility("default")))
#else
#define MOEGEMV_API
#endif

#endif /* MOEGEMV_EXPORT_H_ */
