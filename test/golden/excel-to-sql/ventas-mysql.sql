SET NAMES utf8mb4;

CREATE TABLE `datos` (
  `Fecha` DATETIME,
  `Cliente` VARCHAR(20),
  `Código` VARCHAR(20),
  `Importe` DECIMAL(5,1),
  `Pagado` BOOLEAN,
  `Notas` VARCHAR(20)
) DEFAULT CHARSET=utf8mb4;

INSERT INTO `datos` (`Fecha`, `Cliente`, `Código`, `Importe`, `Pagado`, `Notas`) VALUES
  ('2024-01-15 00:00:00', 'Muñoz Peña', '00123', 1250.5, TRUE, '=SUM(A1)'),
  ('2024-02-29 13:45:00', 'Ángela Ibáñez', '4111111111111111', -3, FALSE, '+34 600 000 000'),
  ('2023-12-31 00:00:00', 'Çedille & Co', '007', 0.1, TRUE, '@mención'),
  (NULL, 'Total', NULL, 2501, NULL, NULL);
