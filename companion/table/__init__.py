"""The table: the host's page and its roster (``nights``), the phones (``phones``), host
codes (``hosting``) and the Wi-Fi code (``wifi_code``)."""
