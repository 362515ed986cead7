<?php
// Router for `php -S` in front of WordPress: what Apache's mod_rewrite rules of WordPress do.
// Existing static files are served by the built-in server itself, existing PHP files are run, folders run their
// index.php, and every other path (pretty permalinks, /wp-sitemap.xml, /feed/) goes to WordPress's index.php.
$root = $_SERVER['DOCUMENT_ROOT'];
$path = '/' . ltrim(rawurldecode(parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH) ?? '/'), '/');
$file = $root . $path;
if (strpos($path, '..') === false && file_exists($file)) {
    if (is_dir($file)) {
        if (substr($path, -1) !== '/') {
            header('Location: ' . $path . '/', true, 301);
            return true;
        }
        if (!file_exists($file . 'index.php')) {
            return false;
        }
        $file .= 'index.php';
        $path .= 'index.php';
    } elseif (substr($file, -4) !== '.php') {
        return false;
    }
    $_SERVER['SCRIPT_NAME'] = $_SERVER['PHP_SELF'] = $path;
    $_SERVER['SCRIPT_FILENAME'] = $file;
    chdir(dirname($file));
    require $file;
    return true;
}
$_SERVER['SCRIPT_NAME'] = $_SERVER['PHP_SELF'] = '/index.php';
$_SERVER['SCRIPT_FILENAME'] = $root . '/index.php';
chdir($root);
require $root . '/index.php';
