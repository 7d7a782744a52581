# libmoegemv.so: what an engine loads (C++ through find_package, Python through ctypes). It is
# linked from the very objects of the static layer libraries (built position-independent and with
# hidden visibility for it), so the CLI, the tests and the .so run the same compiled code.
#
# What it exports is decided twice, on purpose:
# - MOEGEMV_API (include/moegemv/export.h) on the public declarations, with everything else hidden
#   by the compile flags. This is the one place that says what is public, next to the declaration,
#   and it is what exports the error classes' typeinfo, which catching across the boundary needs.
# - cmake/moegemv.map, a version script that keeps only moegemv_* and moegemv::* in the dynamic
#   table. Hidden visibility alone still exports 25 weak libstdc++ template instantiations
#   (namespace std is declared visibility("default")), e.g. std::set<std::string>'s
#   _M_insert_unique and the typeinfo of std::future's shared state: the loader could bind another
#   library's calls to our copies and ours to theirs. A script alone would have to list every
#   public symbol, or would export moegemv's internals too.
include(GNUInstallDirs)

add_library(moegemv_shared SHARED
            $<TARGET_OBJECTS:moegemv_nvfp4> $<TARGET_OBJECTS:moegemv_jit>
            $<TARGET_OBJECTS:moegemv_cache> $<TARGET_OBJECTS:moegemv>)
add_dependencies(moegemv_shared moegemv_nvfp4 moegemv_jit moegemv_cache moegemv)
add_library(moegemv::moegemv ALIAS moegemv_shared)

set(MOEGEMV_VERSION_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/moegemv.map)
set_target_properties(
  moegemv_shared
  PROPERTIES OUTPUT_NAME moegemv
             EXPORT_NAME moegemv
             VERSION ${PROJECT_VERSION}
             SOVERSION ${PROJECT_VERSION_MAJOR}
             LINK_DEPENDS ${MOEGEMV_VERSION_SCRIPT})
# --no-undefined: the .so must be complete by itself (FFI users load nothing else first);
# --as-needed: libdl and libpthread are part of libc since glibc 2.34 and need no DT_NEEDED there.
target_link_options(moegemv_shared PRIVATE "LINKER:--version-script=${MOEGEMV_VERSION_SCRIPT}"
                    "LINKER:--no-undefined" "LINKER:--as-needed")
target_link_libraries(moegemv_shared PRIVATE ${CMAKE_DL_LIBS} Threads::Threads)

# Users' view: the public headers, and cuda.h for moegemv.hpp (CUdeviceptr, CUstream). Installed,
# the toolkit is found on the user's machine (moegemvConfig.cmake) rather than at this machine's
# path; nothing of it is linked, CUDA::toolkit carries headers only.
target_include_directories(
  moegemv_shared INTERFACE $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include>
                           $<BUILD_INTERFACE:${CUDA_INCLUDE_DIR}>
                           $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_link_libraries(moegemv_shared INTERFACE $<INSTALL_INTERFACE:CUDA::toolkit>)
target_compile_features(moegemv_shared INTERFACE cxx_std_20)  # key.hpp's operator<=>
