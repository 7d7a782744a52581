# `cmake --install`: libmoegemv.so with its version links, the public headers, the CLI, and a
# relocatable CMake package (moegemv::moegemv) plus moegemv.pc. The static layer archives are not
# installed: their interface is the internal headers and fmt, spdlog, nlohmann-json and xxhash,
# all of which a package would have to ship or find again, for users who are served by the .so.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(MOEGEMV_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/moegemv)

install(TARGETS moegemv_shared EXPORT moegemvTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT dev)
install(DIRECTORY include/moegemv DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
if(TARGET moegemv_cli)
  install(TARGETS moegemv_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
endif()

install(EXPORT moegemvTargets NAMESPACE moegemv:: DESTINATION ${MOEGEMV_CMAKE_DIR} COMPONENT dev)
configure_package_config_file(cmake/moegemvConfig.cmake.in
                              ${CMAKE_BINARY_DIR}/package/moegemvConfig.cmake
                              INSTALL_DESTINATION ${MOEGEMV_CMAKE_DIR})
# The SONAME carries the major version, so the package promises what the loader assumes.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/package/moegemvConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/package/moegemvConfig.cmake
              ${CMAKE_BINARY_DIR}/package/moegemvConfigVersion.cmake
        DESTINATION ${MOEGEMV_CMAKE_DIR} COMPONENT dev)

# pkg-config finds the prefix from the .pc file's own place (${pcfiledir}), so the tree can move.
set(MOEGEMV_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH MOEGEMV_PC_TO_PREFIX /${MOEGEMV_PC_DIR} /)
string(REGEX REPLACE "/$" "" MOEGEMV_PC_TO_PREFIX "${MOEGEMV_PC_TO_PREFIX}")
configure_file(cmake/moegemv.pc.in ${CMAKE_BINARY_DIR}/package/moegemv.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/package/moegemv.pc DESTINATION ${MOEGEMV_PC_DIR} COMPONENT dev)
