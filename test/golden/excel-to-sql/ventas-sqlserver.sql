CREATE TABLE [datos] (
  [Fecha] DATETIME2(0),
  [Cliente] NVARCHAR(20),
  [Código] NVARCHAR(20),
  [Importe] DECIMAL(5,1),
  [Pagado] BIT,
  [Notas] NVARCHAR(20)
);

INSERT INTO [datos] ([Fecha], [Cliente], [Código], [Importe], [Pagado], [Notas]) VALUES
  ('2024-01-15T00:00:00', N'Muñoz Peña', N'00123', 1250.5, 1, N'=SUM(A1)'),
  ('2024-02-29T13:45:00', N'Ángela Ibáñez', N'4111111111111111', -3, 0, N'+34 600 000 000'),
  ('2023-12-31T00:00:00', N'Çedille & Co', N'007', 0.1, 1, N'@mención'),
  (NULL, N'Total', NULL, 2501, NULL, NULL);
