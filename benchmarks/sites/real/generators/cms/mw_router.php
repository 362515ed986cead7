<?php
// Router for `php -S` in front of MediaWiki: short URLs /wiki/Title go to index.php (MediaWiki reads the title
// from REQUEST_URI through $wgArticlePath), the sitemap files get the served host instead of the build's.
$root = $_SERVER['DOCUMENT_ROOT'];
$path = rawurldecode(parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH) ?? '/');
if ($path === '/' ) {
    header('Location: /wiki/', true, 301);
    return true;
}
if (strncmp($path, '/wiki/', 6) === 0 || $path === '/wiki') {
    $_SERVER['SCRIPT_NAME'] = $_SERVER['PHP_SELF'] = '/index.php';
    $_SERVER['SCRIPT_FILENAME'] = $root . '/index.php';
    chdir($root);
    require $root . '/index.php';
    return true;
}
if (strncmp($path, '/sitemap/', 9) === 0 && strpos($path, '..') === false && is_file($root . $path)) {
    header('Content-Type: application/xml; charset=utf-8');
    $base = 'http://' . $_SERVER['HTTP_HOST'];
    echo str_replace('http://sitemap.invalid', $base, file_get_contents($root . $path));
    return true;
}
return false;
