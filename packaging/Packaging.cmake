# SPDX-License-Identifier: Apache-2.0
# Installation layout and CPack (.deb and .tar.gz). Included from the top-level CMakeLists.txt.
include(GNUInstallDirs)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/resources/ DESTINATION ${CMAKE_INSTALL_DATADIR}/shardscope/resources
        PATTERN "*.qrc" EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} OPTIONAL)

if(SHARDSCOPE_BUILD_GUI)
  install(FILES ${CMAKE_CURRENT_LIST_DIR}/shardscope.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  install(FILES ${CMAKE_CURRENT_LIST_DIR}/shardscope-mime.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages
          RENAME shardscope.xml)
  install(FILES ${CMAKE_CURRENT_LIST_DIR}/icons/shardscope.svg
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
  foreach(size 16 32 48 64 128 256)
    install(FILES ${CMAKE_CURRENT_LIST_DIR}/icons/shardscope-${size}.png
            DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/${size}x${size}/apps RENAME shardscope.png)
  endforeach()
endif()

set(CPACK_PACKAGE_NAME "shardscope")
set(CPACK_PACKAGE_VENDOR "Shardscope")
set(CPACK_PACKAGE_CONTACT "Shardscope maintainers <shardscope@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_GENERATOR "DEB;TGZ")
set(CPACK_PACKAGE_FILE_NAME "shardscope-${PROJECT_VERSION}-${CMAKE_SYSTEM_PROCESSOR}")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_SECTION "science")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# dpkg-shlibdeps derives the exact Qt6/Boost/libstdc++ runtime packages from the binaries; the Qt
# platform plugins and the SVG plugin are loaded at run time, so they are named by hand.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins, libqt6svg6")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "Shardscope shows how a JAX device mesh and sharding rules land on TPU tori and GPU clusters:\n per-device shards and memory, and what each logical axis costs in communication.")
include(CPack)
